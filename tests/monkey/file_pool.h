// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QRandomGenerator>
#include <QString>
#include <QStringList>
#include <QTemporaryDir>

/// The files the monkey opens, made in a temporary folder at the start of each seed: good files
/// (the sample, real models, vocabulary-only files, an importance matrix, a LoRA adapter, a split
/// set and a split set with a shard missing), damaged copies (truncated at offsets drawn from the
/// seed's generator, a header byte flipped, empty), things that are no GGUF at all (text, PNG, a
/// folder, a missing path) and a huge sparse file (a small valid header whose last tensor claims
/// 4 GiB of data, made with QFile::resize so it takes no disk). The same seed makes the same pool.
class FilePool {
public:
    /// Makes the pool, drawing every choice from `random` (in a fixed order).
    explicit FilePool(QRandomGenerator &random);

    bool isValid() const { return m_error.isEmpty(); }
    /// Why the pool could not be made.
    QString error() const { return m_error; }
    /// Every path, in a fixed order (the actions pick by index).
    const QStringList &paths() const { return m_paths; }
    /// The name of `path` as the action log prints it (relative to the pool folder).
    QString name(const QString &path) const;

private:
    QString add(const QString &name);
    bool copy(const QString &source, const QString &name);
    bool write(const QString &name, const QByteArray &bytes);
    void makeGoodFiles();
    void makeDamagedFiles(QRandomGenerator &random);
    void makeHugeSparseFile();

    QTemporaryDir m_dir;
    QStringList m_paths;
    QString m_error;
};
