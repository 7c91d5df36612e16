// SPDX-License-Identifier: GPL-3.0-or-later
#include "ui/hex/hex_annotator.h"

#include "core/format/block_fields.h"
#include "core/format/ggml_types.h"
#include "core/format/gguf_file.h"
#include "core/util/byte_order.h"
#include "core/util/float_convert.h"
#include "ui/common/text_format.h"
#include "ui/common/value_text.h"

#include <QCoreApplication>
#include <QStringList>

#include <algorithm>
#include <cmath>

using gguf::Region;
using gguf::RegionKind;

namespace {

QString tr(const char *text)
{
    return QCoreApplication::translate("HexAnnotator", text);
}

// An unsigned field of `size` bytes at `offset`, in the file's byte order.
uint64_t readUnsigned(const gguf::GgufFile &file, uint64_t offset, uint64_t size)
{
    const gguf::ByteLease held = file.peek(offset, size); // a remote file's bytes only once fetched
    const auto b = held.bytes();
    if (b.size() < size)
        return 0;
    if (size == 4)
        return gguf::loadAs<uint32_t>(b.data(), file.byteSwapped());
    if (size == 8)
        return gguf::loadAs<uint64_t>(b.data(), file.byteSwapped());
    return b.empty() ? 0 : b[0];
}

// The value of a scalar block field or plain element, as text; empty for packed bits.
QString fieldValue(const gguf::GgufFile &file, uint64_t offset, const gguf::BlockField &field)
{
    const gguf::ByteLease held = file.peek(offset, field.size); // a remote file's bytes only once fetched
    const auto b = held.bytes();
    if (b.size() < field.size)
        return {};
    const bool sw = file.byteSwapped();
    const uint8_t *p = b.data();
    switch (field.format) {
    case gguf::FieldFormat::F16: return QString::number(gguf::fp16ToFp32(gguf::loadAs<uint16_t>(p, sw)), 'g', 6);
    case gguf::FieldFormat::BF16: return QString::number(gguf::bf16ToFp32(gguf::loadAs<uint16_t>(p, sw)), 'g', 6);
    case gguf::FieldFormat::F32: return QString::number(gguf::loadAs<float>(p, sw), 'g', 8);
    case gguf::FieldFormat::F64: return QString::number(gguf::loadAs<double>(p, sw), 'g', 16);
    case gguf::FieldFormat::E8M0: return QStringLiteral("2^%1").arg(int(p[0]) - 127);
    case gguf::FieldFormat::I8: return field.size == 1 ? QString::number(int8_t(p[0])) : QString();
    case gguf::FieldFormat::I16: return field.size == 2 ? QString::number(gguf::loadAs<int16_t>(p, sw)) : QString();
    case gguf::FieldFormat::I32: return field.size == 4 ? QString::number(gguf::loadAs<int32_t>(p, sw)) : QString();
    case gguf::FieldFormat::I64: return field.size == 8 ? QString::number(gguf::loadAs<int64_t>(p, sw)) : QString();
    case gguf::FieldFormat::U16:
    case gguf::FieldFormat::UE4M3:
    case gguf::FieldFormat::Packed: break;
    }
    return {};
}

QString explanationOf(RegionKind kind, const gguf::GgufFile &file)
{
    switch (kind) {
    case RegionKind::Magic: return tr("The four bytes \"GGUF\" that open every GGUF file.");
    case RegionKind::Version: return tr("Format version (u32). 3 is current; 2 widened counts and lengths to 64 bits.");
    case RegionKind::TensorCount: return tr("How many tensor info records follow the metadata.");
    case RegionKind::KvCount: return tr("How many metadata key/value pairs follow the header.");
    case RegionKind::HeaderAlignment:
        return tr("Extended header (BitNet-rs writer): the alignment of the data region (u32).");
    case RegionKind::HeaderDataOffset:
        return tr("Extended header (BitNet-rs writer): where the data region starts (u64).");
    case RegionKind::KeyLength: return tr("Length of the key in bytes; the key text follows, without a NUL.");
    case RegionKind::Key: return tr("The key: UTF-8 text, dotted namespaces (general.name, llama.block_count).");
    case RegionKind::ValueType:
        return tr("Type of the value (u32): 0 UINT8 1 INT8 2 UINT16 3 INT16 4 UINT32 5 INT32 6 FLOAT32 7 BOOL "
                  "8 STRING 9 ARRAY 10 UINT64 11 INT64 12 FLOAT64.");
    case RegionKind::Value: return tr("The value in the file's byte order; a string is a length, then its bytes.");
    case RegionKind::ArrayType: return tr("Type of the array's elements (u32).");
    case RegionKind::ArrayCount: return tr("Number of elements in the array.");
    case RegionKind::ArrayElements: return tr("The elements, one after another; each string carries its own length.");
    case RegionKind::TensorNameLength: return tr("Length of the tensor's name; the name follows.");
    case RegionKind::TensorName: return tr("The tensor's name (at most 63 bytes).");
    case RegionKind::TensorNDims: return tr("Number of dimensions (u32, at most 4).");
    case RegionKind::TensorDims: return tr("The dimensions, innermost first: dims[0] (ne0) is the row length.");
    case RegionKind::TensorType: return tr("The ggml type of the data (u32): F32, F16, Q8_0, Q4_K, …");
    case RegionKind::TensorOffset:
        return tr("Where the data starts, relative to the data region (u64); a multiple of the alignment.");
    case RegionKind::Padding:
        return tr("Filler up to the next multiple of the alignment (%1 bytes).").arg(file.alignment());
    case RegionKind::TensorData: return tr("Tensor data: rows of ne0 elements, each row a run of blocks.");
    case RegionKind::Unused: return tr("Bytes that no tensor claims.");
    case RegionKind::Unparsed: return tr("The reader stopped before this point; these bytes were not interpreted.");
    case RegionKind::Broken: return tr("Reading stopped here: this field could not be read as the format needs.");
    }
    return {};
}

} // namespace

HexAnnotator::Category HexAnnotator::categoryOf(RegionKind kind)
{
    switch (kind) {
    case RegionKind::Magic: return Category::Magic;
    case RegionKind::Version: return Category::Version;
    case RegionKind::TensorCount:
    case RegionKind::KvCount:
    case RegionKind::HeaderAlignment:
    case RegionKind::HeaderDataOffset: return Category::Count;
    case RegionKind::KeyLength: return Category::KeyLength;
    case RegionKind::Key: return Category::Key;
    case RegionKind::ValueType: return Category::ValueType;
    case RegionKind::Value: return Category::Value;
    case RegionKind::ArrayType:
    case RegionKind::ArrayCount: return Category::ArrayHeader;
    case RegionKind::ArrayElements: return Category::ArrayElements;
    case RegionKind::TensorNameLength:
    case RegionKind::TensorName: return Category::TensorName;
    case RegionKind::TensorNDims:
    case RegionKind::TensorDims: return Category::TensorDims;
    case RegionKind::TensorType: return Category::TensorType;
    case RegionKind::TensorOffset: return Category::TensorOffset;
    case RegionKind::Padding: return Category::Padding;
    case RegionKind::TensorData: return Category::TensorData;
    case RegionKind::Unused: return Category::Unused;
    case RegionKind::Unparsed: return Category::Unparsed;
    case RegionKind::Broken: return Category::Broken;
    }
    return Category::Unused;
}

QString HexAnnotator::categoryName(Category category)
{
    static const char *const names[kCategoryCount] = {
        "magic",         "version",      "counts",         "key length",  "key text",    "value type",
        "value",         "array header", "array elements", "tensor name", "tensor dims", "tensor type",
        "tensor offset", "padding",      "tensor data",    "unused",      "unparsed",    "broken"};
    return tr(names[int(category)]);
}

HexAnnotator::HexAnnotator(std::shared_ptr<const gguf::GgufFile> file) : m_file(std::move(file)), m_map(*m_file)
{
    // Build the element indexes of string and nested arrays now (this runs on a worker), so the
    // GUI thread finds any element with one binary search.
    for (const gguf::MetadataEntry &entry : m_file->metadata()) {
        if (entry.value.type() != gguf::ValueType::Array)
            continue;
        const gguf::ArrayRef array = entry.value.array();
        if (gguf::valueTypeSize(array.elementType()) == 0 && !array.empty())
            m_file->arrayIndex(array);
    }
}

QString HexAnnotator::keyName(uint32_t entry) const
{
    const auto md = m_file->metadata();
    if (entry >= md.size())
        return tr("key ?");
    return tr("key %1 `%2`").arg(entry).arg(ValueText::oneLine(md[entry].key, 80));
}

QString HexAnnotator::tensorName(uint32_t tensor) const
{
    const auto ts = m_file->tensors();
    return tensor < ts.size() ? QStringLiteral("`%1`").arg(ValueText::oneLine(ts[tensor].name, 80)) : tr("`?`");
}

HexAnnotator::Description HexAnnotator::describe(uint64_t offset) const
{
    Description d;
    const Region *region = m_map.regionAt(offset);
    if (!region)
        return d;
    d.kind = region->kind;
    d.category = categoryOf(region->kind);
    d.regionOffset = d.unitOffset = region->offset;
    d.regionSize = d.unitSize = region->size;
    d.explanation = explanationOf(region->kind, *m_file);
    if (isBrokenItem(*region)) {
        describeBroken(*region, offset, d);
        return d;
    }
    switch (region->kind) {
    case RegionKind::Magic: {
        const auto b = m_file->bytes(0, 4);
        d.label = tr("magic \"%1\"").arg(QString::fromLatin1(reinterpret_cast<const char *>(b.data()), b.size()));
        if (m_file->swappedMagic())
            d.label += tr(" (written byte-swapped)");
        break;
    }
    case RegionKind::Version:
        d.label = tr("version = %1").arg(m_file->version());
        if (m_file->byteSwapped())
            d.label += tr(" (big-endian file)");
        break;
    case RegionKind::TensorCount: d.label = tr("tensor_count = %1").arg(m_file->declaredTensorCount()); break;
    case RegionKind::KvCount: d.label = tr("kv_count = %1").arg(m_file->declaredKvCount()); break;
    case RegionKind::HeaderAlignment: d.label = tr("header alignment = %1").arg(m_file->alignment()); break;
    case RegionKind::HeaderDataOffset:
        d.label = tr("header data offset = %1").arg(TextFormat::offset(m_file->dataOffset()));
        break;
    case RegionKind::KeyLength:
    case RegionKind::Key:
    case RegionKind::ValueType:
    case RegionKind::Value:
    case RegionKind::ArrayType:
    case RegionKind::ArrayCount: describeMetadata(*region, offset, d); break;
    case RegionKind::ArrayElements: describeElement(*region, offset, d); break;
    case RegionKind::TensorNameLength:
    case RegionKind::TensorName:
    case RegionKind::TensorNDims:
    case RegionKind::TensorDims:
    case RegionKind::TensorType:
    case RegionKind::TensorOffset: describeTensorInfo(*region, offset, d); break;
    case RegionKind::TensorData: describeTensorData(*region, offset, d); break;
    case RegionKind::Padding: d.label = tr("alignment padding (%1 bytes)").arg(region->size); break;
    case RegionKind::Unused: d.label = tr("unclaimed bytes (%1)").arg(region->size); break;
    case RegionKind::Unparsed: d.label = tr("not parsed (%1 bytes)").arg(region->size); break;
    case RegionKind::Broken: break; // isBrokenItem
    }
    return d;
}

bool HexAnnotator::isBrokenItem(const Region &region) const
{
    const gguf::Breakage *b = m_file->breakage();
    if (!b)
        return false;
    if (region.kind == RegionKind::Broken)
        return true;
    const bool metadataPart = region.kind >= RegionKind::KeyLength && region.kind <= RegionKind::ArrayElements;
    const bool tensorPart = region.kind >= RegionKind::TensorNameLength && region.kind <= RegionKind::TensorOffset;
    // the item being read is the one after the last that was read whole
    if (metadataPart)
        return b->section == gguf::Breakage::Section::Metadata && region.item >= m_file->metadata().size();
    if (tensorPart)
        return b->section == gguf::Breakage::Section::TensorInfos && region.item >= m_file->tensors().size();
    return false;
}

void HexAnnotator::describeBroken(const Region &region, uint64_t offset, Description &d) const
{
    const gguf::Breakage &b = *m_file->breakage();
    QString item;
    switch (b.section) {
    case gguf::Breakage::Section::Header: item = tr("the header"); break;
    case gguf::Breakage::Section::Metadata:
        item = b.nameRead() ? tr("key/value pair %1 `%2`").arg(b.index).arg(ValueText::oneLine(b.entry.key, 80))
                            : tr("key/value pair %1").arg(b.index);
        break;
    case gguf::Breakage::Section::TensorInfos:
        item = b.nameRead() ? tr("tensor info #%1 `%2`").arg(b.index).arg(ValueText::oneLine(b.tensor.name, 80))
                            : tr("tensor info #%1").arg(b.index);
        break;
    }
    const uint64_t lenSize = m_file->v1() ? 4 : 8;
    switch (region.kind) {
    case RegionKind::Broken:
        d.label = tr("reading stopped here: %1").arg(QString::fromStdString(b.field));
        d.explanation = tr("Expected %1. %2")
                            .arg(QString::fromStdString(b.expected), QString::fromStdString(m_file->error().message));
        return;
    case RegionKind::KeyLength: d.label = tr("%1: key length = %2").arg(item).arg(b.entry.key.size()); break;
    case RegionKind::Key: d.label = tr("%1: key text").arg(item); break;
    case RegionKind::ValueType: d.label = tr("%1: value type = %2").arg(item).arg(b.valueType); break;
    case RegionKind::Value: d.label = tr("%1: the part of the value before the break").arg(item); break;
    case RegionKind::ArrayType:
        d.label = tr("%1: array element type = %2").arg(item).arg(readUnsigned(*m_file, region.offset, 4));
        break;
    case RegionKind::ArrayCount:
        d.label = tr("%1: array count = %2").arg(item).arg(readUnsigned(*m_file, region.offset, lenSize));
        break;
    case RegionKind::ArrayElements: d.label = tr("%1: the elements before the break").arg(item); break;
    case RegionKind::TensorNameLength: d.label = tr("%1: name length = %2").arg(item).arg(b.tensor.name.size()); break;
    case RegionKind::TensorName: d.label = tr("%1: name").arg(item); break;
    case RegionKind::TensorNDims: d.label = tr("%1: n_dims = %2").arg(item).arg(b.tensor.nDims); break;
    case RegionKind::TensorDims: {
        const uint64_t dim = (offset - region.offset) / lenSize;
        d.unitOffset = region.offset + dim * lenSize;
        d.unitSize = lenSize;
        d.label = tr("%1: dims[%2] = %3").arg(item).arg(dim).arg(readUnsigned(*m_file, d.unitOffset, lenSize));
        break;
    }
    default: break;
    }
    d.label += tr(" (read before the break)");
}

void HexAnnotator::describeMetadata(const Region &region, uint64_t offset, Description &d) const
{
    d.item = Item::Metadata;
    d.index = region.item;
    const auto md = m_file->metadata();
    if (region.item >= md.size())
        return;
    const gguf::MetadataEntry &e = md[region.item];
    const gguf::Value &v = e.value;
    const QString key = keyName(region.item);
    const uint64_t lenSize = m_file->v1() ? 4 : 8;
    switch (region.kind) {
    case RegionKind::KeyLength: d.label = tr("%1: key length = %2").arg(key).arg(e.key.size()); break;
    case RegionKind::Key: d.label = tr("%1: key text").arg(key); break;
    case RegionKind::ValueType:
        d.label = tr("%1: value type = %2 (%3)").arg(key).arg(uint32_t(v.type())).arg(ValueText::typeName(v));
        break;
    case RegionKind::Value:
        if (v.type() == gguf::ValueType::String) {
            const std::string_view text = v.toStringView();
            if (offset < v.stringDataOffset()) {
                d.unitOffset = v.offset();
                d.unitSize = lenSize;
                d.label = tr("%1: string length = %2").arg(key).arg(text.size());
            } else {
                d.unitOffset = v.stringDataOffset();
                d.unitSize = text.size();
                d.label = tr("%1: value (STRING, %2 bytes) = \"%3\"")
                              .arg(key)
                              .arg(text.size())
                              .arg(ValueText::oneLine(text, 60));
            }
        } else {
            d.label = tr("%1: value (%2) = %3")
                          .arg(key, ValueText::typeName(v), QString::fromStdString(v.toDisplayString(60)));
        }
        break;
    case RegionKind::ArrayType: {
        const uint32_t type = uint32_t(v.array().elementType());
        d.label = tr("%1: array element type = %2 (%3)")
                      .arg(key)
                      .arg(type)
                      .arg(QString::fromStdString(gguf::valueTypeName(type)));
        break;
    }
    case RegionKind::ArrayCount: d.label = tr("%1: array count = %2").arg(key).arg(v.array().size()); break;
    default: break;
    }
}

bool HexAnnotator::arrayElementAt(uint32_t entry, uint64_t offset, uint64_t &element, uint64_t &begin,
                                  uint64_t &end) const
{
    const auto md = m_file->metadata();
    if (entry >= md.size())
        return false;
    const gguf::ArrayRef array = md[entry].value.array();
    if (array.empty() || offset < array.elementsOffset())
        return false;
    const uint64_t fixed = gguf::valueTypeSize(array.elementType());
    if (fixed != 0) {
        element = (offset - array.elementsOffset()) / fixed;
        if (element >= array.size())
            return false;
        begin = array.elementsOffset() + element * fixed;
        end = begin + fixed;
        return true;
    }
    // string and nested arrays: binary search over the lazy offsets index (built in the constructor)
    const std::vector<uint64_t> &index = m_file->arrayIndex(array);
    const auto it = std::upper_bound(index.begin(), index.end(), offset);
    if (it == index.begin() || it == index.end())
        return false;
    element = uint64_t(it - index.begin()) - 1;
    begin = *(it - 1);
    end = *it;
    return true;
}

void HexAnnotator::describeElement(const Region &region, uint64_t offset, Description &d) const
{
    d.item = Item::Metadata;
    d.index = region.item;
    const auto md = m_file->metadata();
    uint64_t element = 0, begin = 0, end = 0;
    if (region.item >= md.size() || !arrayElementAt(region.item, offset, element, begin, end)) {
        d.label = tr("%1: array elements").arg(keyName(region.item));
        return;
    }
    const QString key = ValueText::oneLine(md[region.item].key, 80);
    const gguf::Value value = md[region.item].value.array().at(element);
    d.unitOffset = begin;
    d.unitSize = end - begin;
    if (value.type() == gguf::ValueType::String) {
        const std::string_view text = value.toStringView();
        const uint64_t lenSize = m_file->v1() ? 4 : 8;
        d.label = tr("%1 element %2: \"%3\"").arg(key).arg(element).arg(ValueText::oneLine(text, 60));
        if (offset < begin + lenSize) {
            d.label += tr(" — its length field (%1 bytes)").arg(text.size());
            d.unitSize = lenSize;
        } else {
            d.unitOffset = begin + lenSize;
            d.unitSize = text.size();
        }
    } else if (value.type() == gguf::ValueType::Array) {
        d.label =
            tr("%1 element %2: nested %3").arg(key).arg(element).arg(QString::fromStdString(value.toDisplayString()));
    } else {
        d.label = tr("%1 element %2 = %3").arg(key).arg(element).arg(QString::fromStdString(value.toDisplayString()));
    }
}

void HexAnnotator::describeTensorInfo(const Region &region, uint64_t offset, Description &d) const
{
    d.item = Item::Tensor;
    d.index = region.item;
    const auto ts = m_file->tensors();
    if (region.item >= ts.size())
        return;
    const gguf::TensorInfo &t = ts[region.item];
    const QString who = tr("tensor info #%1 %2").arg(region.item).arg(tensorName(region.item));
    switch (region.kind) {
    case RegionKind::TensorNameLength: d.label = tr("%1: name length = %2").arg(who).arg(t.name.size()); break;
    case RegionKind::TensorName: d.label = tr("%1: name").arg(who); break;
    case RegionKind::TensorNDims: d.label = tr("%1: n_dims = %2").arg(who).arg(t.nDims); break;
    case RegionKind::TensorDims: {
        const uint64_t dimSize = m_file->v1() ? 4 : 8;
        const uint64_t dim = (offset - t.dimsOffset) / dimSize;
        d.unitOffset = t.dimsOffset + dim * dimSize;
        d.unitSize = dimSize;
        d.label = tr("%1: dims[%2] = %3").arg(who).arg(dim).arg(readUnsigned(*m_file, d.unitOffset, dimSize));
        break;
    }
    case RegionKind::TensorType:
        d.label = tr("%1: type = %2 (%3)").arg(who).arg(t.typeId).arg(QString::fromStdString(gguf::typeName(t.typeId)));
        break;
    case RegionKind::TensorOffset:
        // (a damaged file whose tensor infos broke off: where the data region starts is unknown)
        d.label = tr("%1: offset = %2 (file offset %3)")
                      .arg(who, TextFormat::offset(t.relativeOffset),
                           m_file->tensorInfoEnd() != 0 ? TextFormat::offset(t.fileOffset) : tr("unknown"));
        break;
    default: break;
    }
}

void HexAnnotator::describeTensorData(const Region &region, uint64_t offset, Description &d) const
{
    d.item = Item::Tensor;
    d.index = region.item;
    const auto ts = m_file->tensors();
    if (region.item >= ts.size())
        return;
    const gguf::TensorInfo &t = ts[region.item];
    const QString type = QString::fromStdString(gguf::typeName(t.typeId));
    const QString name = tensorName(region.item);
    const uint64_t relative = offset - t.fileOffset;
    const std::optional<gguf::TensorDataPosition> pos = gguf::locateInTensor(t.typeId, t.elements, relative);
    if (!pos) {
        d.label = tr("data of %1 (%2)").arg(name, type);
        return;
    }
    const gguf::BlockField &field = *pos->field;
    const uint64_t fieldOffset = t.fileOffset + pos->blockOffset + field.offset;
    d.unitOffset = fieldOffset;
    d.unitSize = field.size;
    const QString value = fieldValue(*m_file, fieldOffset, field);
    const QString fieldText = TextFormat::fromView(field.description);
    if (pos->trailer) {
        d.label = tr("%1 %2 of %3").arg(type, pos->trailerScale ? tr("tensor scale") : tr("trailer padding"), name);
    } else if (gguf::typeTraits(t.typeId).blockSize == 1) {
        const uint64_t ne0 = std::max<uint64_t>(1, t.ne[0]);
        d.label = tr("%1 element %2 of %3 (row %4, column %5)")
                      .arg(type)
                      .arg(pos->block)
                      .arg(name)
                      .arg(pos->block / ne0)
                      .arg(pos->block % ne0);
    } else {
        d.label =
            tr("%1 block %2 of %3, field `%4`").arg(type).arg(pos->block).arg(name, TextFormat::fromView(field.name));
        d.explanation = tr("%1 (byte %2 of the %3-byte field; the block is %4 bytes for %5 elements)")
                            .arg(fieldText)
                            .arg(offset - fieldOffset)
                            .arg(field.size)
                            .arg(gguf::typeTraits(t.typeId).typeSize)
                            .arg(gguf::typeTraits(t.typeId).blockSize);
    }
    if (!value.isEmpty())
        d.label += QStringLiteral(" = ") + value;
    if (pos->trailer || gguf::typeTraits(t.typeId).blockSize == 1)
        d.explanation = fieldText;
}

void HexAnnotator::shades(uint64_t begin, uint64_t count, Shade *out) const
{
    const auto &regions = m_map.regions();
    const Region *region = m_map.regionAt(begin);
    size_t r = region ? size_t(region - regions.data()) : regions.size();
    const auto ts = m_file->tensors();
    uint64_t element = 0, elementBegin = 0, elementEnd = 0;
    for (uint64_t i = 0; i < count; ++i) {
        const uint64_t offset = begin + i;
        while (r < regions.size() && offset >= regions[r].end())
            ++r;
        Shade &s = out[i];
        if (r >= regions.size() || offset < regions[r].offset) {
            s = Shade{Category::Unused, 0, false};
            continue;
        }
        const Region &reg = regions[r];
        s = Shade{categoryOf(reg.kind), 0, false};
        if (reg.kind == RegionKind::TensorData && reg.item < ts.size()) {
            const gguf::TensorInfo &t = ts[reg.item];
            if (const auto pos = gguf::locateInTensor(t.typeId, t.elements, offset - t.fileOffset)) {
                // 0 for plain elements; block fields count from 1; the I2_S trailer comes last
                const bool plain = gguf::typeTraits(t.typeId).blockSize == 1;
                s.field = uint8_t(pos->trailer ? 8 : plain ? 0 : pos->fieldIndex + 1);
                s.odd = (pos->block & 1) != 0;
            }
        } else if (reg.kind == RegionKind::ArrayElements) {
            // consecutive bytes mostly share an element: search again only past its end
            if (offset < elementBegin || offset >= elementEnd) {
                elementBegin = elementEnd = offset + 1;
                if (!arrayElementAt(reg.item, offset, element, elementBegin, elementEnd))
                    elementBegin = elementEnd = 0;
            }
            s.odd = elementEnd != 0 && (element & 1) != 0;
        } else if (reg.kind == RegionKind::TensorDims) {
            // tell the dims of one record apart
            s.odd = ((offset - reg.offset) / (m_file->v1() ? 4 : 8) & 1) != 0;
        }
    }
}
