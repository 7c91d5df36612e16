// SPDX-License-Identifier: GPL-3.0-or-later
#include "ui/shell/drop_paths.h"

#include "core/format/byte_source.h"
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

bool isRemote(const QString &name)
{
    return gguf::looksRemote(name.toStdString());
}

QStringList remoteFiles(const QMimeData *mime)
{
    QStringList urls;
    if (!mime)
        return urls;
    if (mime->hasUrls()) {
        for (const QUrl &url : mime->urls())
            if (url.scheme() == QLatin1String("http") || url.scheme() == QLatin1String("https"))
                urls << url.toString(QUrl::FullyEncoded);
    } else if (mime->hasText()) {
        // a link dragged as text, or a hub name
        for (const QString &line : mime->text().split(u'\n', Qt::SkipEmptyParts))
            if (const QString name = line.trimmed(); isRemote(name) && !name.contains(u' '))
                urls << name;
    }
    return urls;
}

QStringList distinctModels(const QStringList &paths)
{
    QStringList models;
    // split base → position in `models` and the shard number kept there
    QHash<QString, std::pair<qsizetype, uint32_t>> splits;
    for (const QString &path : paths) {
        // a URL stays as given (its shards are found by name on the server, as files are on disk)
        const QString absolute = isRemote(path) ? path : QFileInfo(path).absoluteFilePath();
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
