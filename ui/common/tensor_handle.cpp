// SPDX-License-Identifier: GPL-3.0-or-later
#include "ui/common/tensor_handle.h"

#include "ui/common/text_format.h"

#include "core/format/ggml_types.h"
#include "core/format/split_model.h"

#include <QRegularExpression>
#include <QSet>
#include <QStringList>

#include <algorithm>
#include <map>

namespace {

const QRegularExpression &layerPrefix()
{
    static const QRegularExpression re(QStringLiteral("(?:^|\\.)(?:blk|layers)\\.\\d+\\."));
    return re;
}

QString nameOf(const gguf::TensorInfo &info)
{
    return QString::fromUtf8(info.name.data(), static_cast<qsizetype>(info.name.size()));
}

} // namespace

TensorHandle TensorHandle::find(std::shared_ptr<const gguf::SplitModel> model, TensorRef ref)
{
    const int shard = ref.shard, index = ref.index;
    if (!model)
        return {};
    const auto &tensors = model->tensors();
    for (size_t i = 0; i < tensors.size(); ++i)
        if (static_cast<int>(tensors[i].shard) == shard && static_cast<int>(tensors[i].info->index) == index)
            return {std::move(model), static_cast<int>(i)};
    return {};
}

TensorHandle TensorHandle::named(std::shared_ptr<const gguf::SplitModel> model, const QString &name)
{
    if (!model)
        return {};
    const QByteArray utf8 = name.toUtf8();
    const std::string_view wanted(utf8.constData(), static_cast<size_t>(utf8.size()));
    const auto &tensors = model->tensors();
    for (size_t i = 0; i < tensors.size(); ++i)
        if (tensors[i].info->name == wanted)
            return {std::move(model), static_cast<int>(i)};
    return {};
}

TensorHandle TensorHandle::representative(std::shared_ptr<const gguf::SplitModel> model)
{
    if (!model || model->tensors().empty())
        return {};
    const auto &tensors = model->tensors();
    int best = 0;
    uint64_t bestElements = 0;
    for (size_t i = 0; i < tensors.size(); ++i) {
        const gguf::TensorInfo &info = *tensors[i].info;
        if (info.layer == 0 && info.name.ends_with("attn_q.weight"))
            return {std::move(model), static_cast<int>(i)};
        if (info.nDims == 2 && info.elements > bestElements) {
            best = static_cast<int>(i);
            bestElements = info.elements;
        }
    }
    return {std::move(model), best};
}

bool TensorHandle::isValid() const
{
    return model && position >= 0 && static_cast<size_t>(position) < model->tensors().size();
}

const gguf::TensorInfo &TensorHandle::info() const
{
    return *model->tensors()[static_cast<size_t>(position)].info;
}

int TensorHandle::shard() const
{
    return static_cast<int>(model->tensors()[static_cast<size_t>(position)].shard);
}

const gguf::GgufFile &TensorHandle::file() const
{
    return *model->shards()[static_cast<size_t>(shard())].file;
}

std::shared_ptr<const gguf::GgufFile> TensorHandle::fileShared() const
{
    return model->shards()[static_cast<size_t>(shard())].file;
}

gguf::TensorData TensorHandle::data() const
{
    return gguf::tensorData(file(), info());
}

gguf::TensorSource TensorHandle::source() const
{
    return isValid() ? gguf::TensorSource{&file(), &info()} : gguf::TensorSource{};
}

QString TensorHandle::name() const
{
    return isValid() ? nameOf(info()) : QString();
}

quint64 TensorHandle::columns() const
{
    return isValid() ? info().ne[0] : 0;
}

quint64 TensorHandle::rows() const
{
    const quint64 cols = columns();
    return cols ? info().elements / cols : 0;
}

std::pair<quint64, quint64> TensorHandle::tileByteRange(const gguf::Heatmap &h, int row, int column) const
{
    if (!isValid() || row < 0 || column < 0 || static_cast<uint32_t>(row) >= h.gridRows ||
        static_cast<uint32_t>(column) >= h.gridCols)
        return {0, 0};
    const auto r = static_cast<uint32_t>(row), c = static_cast<uint32_t>(column);
    const quint64 first = h.rowStart(r) * h.tensorCols;
    return byteRange(first + h.colStart(c), first + h.colStart(c + 1));
}

QString TensorHandle::description() const
{
    if (!isValid())
        return {};
    const gguf::TensorInfo &t = info();
    return QStringLiteral("%1 [%2]").arg(QString::fromStdString(gguf::typeName(t.typeId)), TextFormat::dims(t));
}

QString TensorHandle::role() const
{
    return isValid() ? tensorRole(name()) : QString();
}

std::pair<quint64, quint64> TensorHandle::byteRange(quint64 first, quint64 last) const
{
    const gguf::TypeTraits &traits = gguf::typeTraits(info().typeId);
    const quint64 base = info().fileOffset;
    if (traits.blockSize == 0 || traits.typeSize == 0)
        return {base, info().byteSize};
    const quint64 begin = first / traits.blockSize * traits.typeSize;
    const quint64 end = (last + traits.blockSize - 1) / traits.blockSize * traits.typeSize;
    return {base + begin, std::min<quint64>(end, info().byteSize) - std::min<quint64>(begin, info().byteSize)};
}

QString tensorRole(const QString &name)
{
    const QRegularExpressionMatch match = layerPrefix().match(name);
    if (!match.hasMatch())
        return {};
    return name.mid(match.capturedEnd());
}

QVector<TensorHandle> layerTensors(const std::shared_ptr<const gguf::SplitModel> &model, const QString &role)
{
    QVector<TensorHandle> result;
    if (!model || role.isEmpty())
        return result;
    std::multimap<int32_t, int> byLayer;
    const auto &tensors = model->tensors();
    for (size_t i = 0; i < tensors.size(); ++i) {
        const gguf::TensorInfo &info = *tensors[i].info;
        if (info.layer >= 0 && tensorRole(nameOf(info)) == role)
            byLayer.emplace(info.layer, static_cast<int>(i));
    }
    for (const auto &[layer, position] : byLayer)
        result.append(TensorHandle{model, position});
    return result;
}

QStringList layerRoles(const gguf::SplitModel &model)
{
    QStringList roles;
    QSet<QString> seen;
    for (const auto &ref : model.tensors()) {
        if (ref.info->layer < 0)
            continue;
        const QString role = tensorRole(nameOf(*ref.info));
        if (!role.isEmpty() && !seen.contains(role)) {
            seen.insert(role);
            roles << role;
        }
    }
    return roles;
}

TensorRef TensorHandle::ref() const
{
    return isValid() ? TensorRef{shard(), static_cast<int>(info().index)} : TensorRef{};
}
