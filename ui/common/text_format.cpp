// SPDX-License-Identifier: GPL-3.0-or-later
#include "ui/common/text_format.h"

#include "core/format/gguf_file.h"
#include "core/stats/tensor_data.h"

#include <QCoreApplication>
#include <QLocale>
#include <QStringBuilder>
#include <QStringList>

#include <algorithm>

namespace TextFormat {

QString offset(quint64 offset)
{
    return QStringLiteral("0x") + QString::number(offset, 16);
}

QString offsetAndDecimal(quint64 value)
{
    return QStringLiteral("%1 (%2)").arg(offset(value), count(value));
}

QString range(quint64 begin, quint64 end)
{
    return offset(begin) % QChar(0x2013) % offset(end);
}

QString count(quint64 n)
{
    return QLocale().toString(n);
}

QString byteSize(quint64 bytes)
{
    if (bytes < 1024)
        return count(bytes) % QLatin1String(bytes == 1 ? " byte" : " bytes");
    return QLocale().formattedDataSize(static_cast<qint64>(bytes), 2, QLocale::DataSizeIecFormat);
}

QString dims(const gguf::TensorInfo &tensor)
{
    QStringList dims;
    for (uint32_t d = 0; d < std::min<uint32_t>(tensor.nDims, 4); ++d)
        dims << QString::number(tensor.ne[d]);
    return dims.isEmpty() ? QStringLiteral("scalar") : dims.join(QStringLiteral(" × "));
}

QString statsStatus(gguf::StatsStatus status)
{
    switch (status) {
    case gguf::StatsStatus::Ok: return QCoreApplication::translate("TextFormat", "ok");
    case gguf::StatsStatus::Cancelled: return QCoreApplication::translate("TextFormat", "cancelled");
    case gguf::StatsStatus::Unsupported:
        return QCoreApplication::translate("TextFormat", "values of this type cannot be decoded");
    case gguf::StatsStatus::NoData:
        return QCoreApplication::translate("TextFormat", "the tensor's data is not inside the file (the file is cut "
                                                         "short, or damaged before the end of its tensor infos)");
    }
    return {};
}

} // namespace TextFormat
