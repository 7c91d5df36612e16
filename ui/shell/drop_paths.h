// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QStringList>

class QMimeData;

/// Turning dropped or named files into models to open.
namespace DropPaths {

/// The local files among the URLs of `mime` (remote URLs and non-file data are ignored).
QStringList localFiles(const QMimeData *mime);
/// The http(s) URLs among the URLs of `mime`, or the URLs and `hf:` names of dropped text.
QStringList remoteFiles(const QMimeData *mime);
/// True for an http(s) URL or an `hf:` name (opened over the network, docs/REMOTE.md).
bool isRemote(const QString &name);

/// One path per model: the shards of one split model (`name-0000K-of-0000N.gguf`) collapse into
/// their lowest-numbered shard; other paths are kept. Order of first appearance is kept. Local
/// paths are made absolute; URLs stay as given.
QStringList distinctModels(const QStringList &paths);

} // namespace DropPaths
