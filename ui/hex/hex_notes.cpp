// SPDX-License-Identifier: GPL-3.0-or-later
#include "ui/hex/hex_notes.h"

#include "core/format/block_fields.h"
#include "core/format/ggml_types.h"
#include "core/format/gguf_file.h"
#include "ui/common/value_text.h"
#include "ui/hex/hex_annotator.h"

#include <QCoreApplication>
#include <QStringList>

#include <algorithm>

using gguf::Region;
using gguf::RegionKind;

namespace {

// The notes' words, translated in the context "HexNotes"; the format's own field names
// (tensor_count, kv_count, alignment, data_offset, n_dims) stay as the specification spells them.
struct NoteWords {
    Q_DECLARE_TR_FUNCTIONS(HexNotes)
};

constexpr int kMaxNotes = 8;

QString text(std::string_view bytes, int maxChars)
{
    return ValueText::oneLine(bytes, maxChars);
}

// The note for a region that starts in the row.
QString regionNote(const HexAnnotator &a, const Region &r)
{
    const gguf::GgufFile &f = a.file();
    const auto md = f.metadata();
    const auto ts = f.tensors();
    const bool entry = r.item < md.size();
    const bool tensor = r.item < ts.size();
    if (r.kind == RegionKind::Broken)
        return NoteWords::tr("✖ %1").arg(QString::fromStdString(f.breakage()->expected));
    if (a.isBrokenItem(r))
        return NoteWords::tr("%1 of #%2, before the break")
            .arg(HexAnnotator::categoryName(HexAnnotator::categoryOf(r.kind)))
            .arg(r.item);
    switch (r.kind) {
    case RegionKind::Magic: return NoteWords::tr("magic");
    case RegionKind::Version: return NoteWords::tr("version %1").arg(f.version());
    case RegionKind::TensorCount: return QStringLiteral("tensor_count %1").arg(f.declaredTensorCount());
    case RegionKind::KvCount: return QStringLiteral("kv_count %1").arg(f.declaredKvCount());
    case RegionKind::HeaderAlignment: return QStringLiteral("alignment %1").arg(f.alignment());
    case RegionKind::HeaderDataOffset: return QStringLiteral("data_offset 0x%1").arg(f.dataOffset(), 0, 16);
    case RegionKind::KeyLength:
        return NoteWords::tr("key #%1 length %2").arg(r.item).arg(entry ? md[r.item].key.size() : 0);
    case RegionKind::Key: return entry ? QStringLiteral("\"%1\"").arg(text(md[r.item].key, 48)) : QString();
    case RegionKind::ValueType:
        return entry ? NoteWords::tr("type %1").arg(ValueText::typeName(md[r.item].value)) : QString();
    case RegionKind::Value:
        if (!entry)
            return {};
        if (md[r.item].value.type() == gguf::ValueType::String)
            return QStringLiteral("= \"%1\"").arg(text(md[r.item].value.toStringView(), 40));
        return QStringLiteral("= %1").arg(QString::fromStdString(md[r.item].value.toDisplayString(40)));
    case RegionKind::ArrayType:
        return entry ? NoteWords::tr("of %1").arg(
                           QString::fromStdString(gguf::valueTypeName(md[r.item].value.array().elementType())))
                     : QString();
    case RegionKind::ArrayCount: return entry ? QStringLiteral("× %1").arg(md[r.item].value.array().size()) : QString();
    case RegionKind::ArrayElements: return {};
    case RegionKind::TensorNameLength: return NoteWords::tr("tensor info #%1").arg(r.item);
    case RegionKind::TensorName: return tensor ? QStringLiteral("\"%1\"").arg(text(ts[r.item].name, 64)) : QString();
    case RegionKind::TensorNDims: return tensor ? QStringLiteral("n_dims %1").arg(ts[r.item].nDims) : QString();
    case RegionKind::TensorDims: {
        if (!tensor)
            return {};
        QStringList dims;
        for (uint32_t i = 0; i < std::min<uint32_t>(ts[r.item].nDims, 4); ++i)
            dims << QString::number(ts[r.item].ne[i]);
        return NoteWords::tr("dims [%1]").arg(dims.join(QStringLiteral(", ")));
    }
    case RegionKind::TensorType:
        return tensor ? NoteWords::tr("type %1").arg(QString::fromStdString(gguf::typeName(ts[r.item].typeId)))
                      : QString();
    case RegionKind::TensorOffset:
        return tensor ? NoteWords::tr("offset 0x%1").arg(ts[r.item].relativeOffset, 0, 16) : QString();
    case RegionKind::Padding: return NoteWords::tr("padding (%1)").arg(r.size);
    case RegionKind::TensorData:
        return tensor ? NoteWords::tr("data of \"%1\" (%2)")
                            .arg(text(ts[r.item].name, 64), QString::fromStdString(gguf::typeName(ts[r.item].typeId)))
                      : QString();
    case RegionKind::Unused: return NoteWords::tr("unclaimed (%1 bytes)").arg(r.size);
    case RegionKind::Unparsed: return NoteWords::tr("not parsed");
    case RegionKind::Broken: break; // above
    }
    return {};
}

// Notes for what starts inside a long region: array elements, blocks, plain elements.
void innerNotes(const HexAnnotator &a, const Region &r, uint64_t begin, uint64_t end, QStringList &notes)
{
    const gguf::GgufFile &f = a.file();
    if (r.kind == RegionKind::ArrayElements && r.item < f.metadata().size()) {
        const gguf::ArrayRef array = f.metadata()[r.item].value.array();
        uint64_t element = 0, eBegin = 0, eEnd = 0;
        uint64_t at = std::max(begin, r.offset);
        if (!a.arrayElementAt(r.item, at, element, eBegin, eEnd))
            return;
        // start with the first element that begins in the row
        if (eBegin < at && ++element < array.size())
            eBegin = eEnd;
        while (eBegin < end && element < array.size() && notes.size() < kMaxNotes) {
            const gguf::Value v = array.at(element);
            notes << (v.type() == gguf::ValueType::String
                          ? QStringLiteral("[%1] \"%2\"").arg(element).arg(text(v.toStringView(), 24))
                          : QStringLiteral("[%1] %2").arg(element).arg(QString::fromStdString(v.toDisplayString(24))));
            eBegin += v.size();
            ++element;
        }
        return;
    }
    if (r.kind != RegionKind::TensorData || r.item >= f.tensors().size())
        return;
    const gguf::TensorInfo &t = f.tensors()[r.item];
    const gguf::TypeTraits &traits = gguf::typeTraits(t.typeId);
    if (traits.typeSize == 0 || gguf::blockFields(t.typeId).empty())
        return;
    const uint64_t from = std::max(begin, r.offset) - t.fileOffset;
    const uint64_t to = std::min(end, r.end()) - t.fileOffset;
    // the first unit that starts in the row
    const uint64_t first = (from + traits.typeSize - 1) / traits.typeSize;
    const uint64_t blocks = traits.blockSize == 0 ? 0 : t.elements / traits.blockSize;
    if (first * traits.typeSize < to && first < blocks)
        notes << (traits.blockSize == 1 ? NoteWords::tr("element %1") : NoteWords::tr("block %1")).arg(first);
    else if (traits.rule == gguf::SizeRule::BitNetI2S && blocks * traits.typeSize >= from &&
             blocks * traits.typeSize < to)
        notes << NoteWords::tr("tensor scale");
}

} // namespace

namespace HexNotes {

QString forRow(const HexAnnotator &annotator, uint64_t begin, uint64_t end, int maxChars)
{
    const gguf::ByteMap &map = annotator.byteMap();
    const auto &regions = map.regions();
    const Region *first = map.regionAt(begin);
    if (!first)
        return {};
    QStringList notes;
    for (size_t i = size_t(first - regions.data()); i < regions.size() && regions[i].offset < end; ++i) {
        const Region &r = regions[i];
        if (r.offset >= begin) {
            const QString note = regionNote(annotator, r);
            if (!note.isEmpty())
                notes << note;
        }
        innerNotes(annotator, r, begin, end, notes);
        if (notes.size() >= kMaxNotes)
            break;
    }
    QString line = notes.join(QStringLiteral(" · "));
    if (line.size() > maxChars)
        line = line.left(std::max(0, maxChars - 1)) + QChar(0x2026);
    return line;
}

} // namespace HexNotes
