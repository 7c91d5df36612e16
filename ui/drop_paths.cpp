// SPDX-License-Identifier: GPL-3.0-or-later
#include "ui/drop_paths.h"

#include "core/format/split_model.h"

#include <QFile>
#include <QFileInfo>
#include <QHash>
#include <QMimeData>
#include <QUrl>

namespace DropPaths {

QStringList localFiles(const QMimeData *mime)
{
    QStringList paths;
    if (!mime || !mime->hasUrls())
        return paths;
    for (const QUrl &url : mime->urls())
        if (url.isLocalFile())
            paths << url.toLocalFile();
    return paths;
}

QStringList distinctModels(const QStringList &paths)
{
    QStringList models;
    // split base → position in `models` and the shard number kept there
    QHash<QString, std::pair<qsizetype, uint32_t>> splits;
    for (const QString &path : paths) {
        const QString absolute = QFileInfo(path).absoluteFilePath();
        const auto shard = gguf::parseShardName(QFile::encodeName(absolute).toStdString());
        if (!shard) {
            if (!models.contains(absolute))
                models << absolute;
            continue;
        }
        const QString base = QFile::decodeName(QByteArray::fromStdString(shard->base));
        const auto it = splits.find(base);
        if (it == splits.end()) {
            splits.insert(base, {models.size(), shard->number});
            models << absolute;
        } else if (shard->number < it->second) {
            models[it->first] = absolute;
            it->second = shard->number;
        }
    }
    return models;
}

} // namespace DropPaths
