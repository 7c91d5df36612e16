// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QRandomGenerator>
#include <QString>
#include <QStringList>
#include <QTemporaryDir>

#include <memory>

namespace gguf::test {
class RangeServer;
}

/// The files the monkey opens, made in a temporary folder at the start of each seed: good files
/// (the sample, real models, vocabulary-only files, an importance matrix, a LoRA adapter, a split
/// set and a split set with a shard missing), damaged copies (truncated at offsets drawn from the
/// seed's generator, a header byte flipped, empty), things that are no GGUF at all (text, PNG, a
/// folder, a missing path) and a huge sparse file (a small valid header whose last tensor claims
/// 4 GiB of data, made with QFile::resize so it takes no disk), and URLs of some of them served by
/// a range server on 127.0.0.1 (a split set, a cut copy and a missing file among them). The same
/// seed makes the same pool (the URLs' port aside).
class FilePool {
public:
    /// Makes the pool, drawing every choice from `random` (in a fixed order).
    explicit FilePool(QRandomGenerator &random);
    ~FilePool();

    bool isValid() const { return m_error.isEmpty(); }
    /// Why the pool could not be made.
    QString error() const { return m_error; }
    /// Every path, in a fixed order (the actions pick by index).
    const QStringList &paths() const { return m_paths; }
    /// The name of `path` as the action log prints it (relative to the pool folder; a URL's path).
    QString name(const QString &path) const;
    /// A path in the pool folder that is not one of paths(): where a Save As writes.
    QString scratchPath(const QString &name) const { return m_dir.filePath(name); }

private:
    QString add(const QString &name);
    bool copy(const QString &source, const QString &name);
    bool write(const QString &name, const QByteArray &bytes);
    void makeGoodFiles();
    void makeDamagedFiles(QRandomGenerator &random);
    void makeHugeSparseFile();
    void serveSome();

    QTemporaryDir m_dir;
    std::unique_ptr<gguf::test::RangeServer> m_server;
    QStringList m_paths;
    QString m_error;
};
