// SPDX-License-Identifier: GPL-3.0-or-later
#include "ui/common/damage_text.h"

#include "core/format/gguf_file.h"
#include "ui/common/text_format.h"
#include "ui/common/value_text.h"

#include <QCoreApplication>

namespace DamageText {
namespace {

// translated in the context "DamageText"
struct DamageWords {
    Q_DECLARE_TR_FUNCTIONS(DamageText)
};

} // namespace

QString item(const gguf::Breakage &b)
{
    switch (b.section) {
    case gguf::Breakage::Section::Header: return DamageWords::tr("the header");
    case gguf::Breakage::Section::Metadata:
        return b.nameRead()
                   ? DamageWords::tr("key/value pair %1 `%2`").arg(b.index).arg(ValueText::oneLine(b.entry.key, 80))
                   : DamageWords::tr("key/value pair %1").arg(b.index);
    case gguf::Breakage::Section::TensorInfos:
        return b.nameRead()
                   ? DamageWords::tr("tensor info #%1 `%2`").arg(b.index).arg(ValueText::oneLine(b.tensor.name, 80))
                   : DamageWords::tr("tensor info #%1").arg(b.index);
    }
    return {};
}

QString where(const gguf::GgufFile &file)
{
    const gguf::Breakage *b = file.breakage();
    if (!b)
        return {};
    return DamageWords::tr("Reading stopped at byte %1 in %2: %3.")
        .arg(TextFormat::offset(b->fieldOffset), item(*b), QString::fromStdString(b->expected));
}

QString missing(const gguf::GgufFile &file)
{
    const gguf::Breakage *b = file.breakage();
    if (!b)
        return {};
    switch (b->section) {
    case gguf::Breakage::Section::Header:
        return DamageWords::tr("Nothing after the header was read: no key/value pairs, no tensor infos.");
    case gguf::Breakage::Section::Metadata:
        return DamageWords::tr("%1 of %2 key/value pairs were read; the %3 tensor infos after them were not.")
            .arg(file.metadata().size())
            .arg(file.declaredKvCount())
            .arg(file.declaredTensorCount());
    case gguf::Breakage::Section::TensorInfos:
        return DamageWords::tr(
                   "%1 of %2 tensor infos were read. Where the tensor data starts follows from the end of the "
                   "last tensor info, so no tensor's values can be read.")
            .arg(file.tensors().size())
            .arg(file.declaredTensorCount());
    }
    return {};
}

} // namespace DamageText
