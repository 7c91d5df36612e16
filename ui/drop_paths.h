// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QStringList>

class QMimeData;

/// Turning dropped or named files into models to open.
namespace DropPaths {

/// The local files among the URLs of `mime` (remote URLs and non-file data are ignored).
QStringList localFiles(const QMimeData *mime);

/// One path per model: the shards of one split model (`name-0000K-of-0000N.gguf`) collapse into
/// their lowest-numbered shard; other paths are kept. Order of first appearance is kept.
QStringList distinctModels(const QStringList &paths);

} // namespace DropPaths
